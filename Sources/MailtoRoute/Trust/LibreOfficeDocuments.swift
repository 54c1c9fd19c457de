import DesktopIntegration
import MailtoCore

/// The document LibreOffice's "Email Document" hands over, known by where it lies, on a
/// desktop without app scopes (Writer started from a terminal, openbox, Xfce, i3), where
/// senddoc has exited and left nothing else behind.
///
/// LibreOffice saves the document it mails into a fresh folder inside its own temporary
/// directory, `lu<PID><token>.tmp` under `$TMPDIR` or `/tmp` (unotools' `TempFile`, with the
/// pid of its `soffice.bin`), and runs senddoc with that file's path
/// (`/tmp/lu20908d1izw.tmp/lu20908d1izz.tmp/Budget.odt`). The running `soffice.bin` holds a
/// file in that directory open for as long as it runs, so the kernel ties the directory to
/// it (`/proc/PID/fd`). A web page can name a path, but it cannot make LibreOffice hold a
/// directory open, and it cannot know the random name of one: a file that lies inside the
/// temporary directory of this user's running `soffice.bin`, and is this user's, was put
/// there by that LibreOffice. What LibreOffice leaves in the environment (`URE_BOOTSTRAP`,
/// `LIBO_VERSION`) proves nothing: a browser started from a document inherits it.
public enum LibreOfficeDocuments {
    /// One running `soffice.bin` and the files it holds open.
    public struct Office: Sendable, Equatable {
        public var process: ProcessFacts
        public var openFiles: [String]

        public init(process: ProcessFacts, openFiles: [String]) {
            self.process = process
            self.openFiles = openFiles
        }
    }

    /// This user's running `soffice.bin` processes, read from `/proc`.
    public static func running(ownUID: UInt32) -> [Office] {
        ProcessFacts.runningPIDs().compactMap { pid in
            guard let process = ProcessFacts.read(pid: pid), process.uid == ownUID,
                  process.executable?.hasSuffix("/soffice.bin") == true else { return nil }
            return Office(process: process, openFiles: ProcessFacts.openFiles(pid: pid))
        }
    }

    /// Of the files `requested` names (each `attach=` value's readings), the ones inside a
    /// temporary directory of one of `offices` and owned by `ownUID`, as full paths with
    /// every link resolved.
    public static func documents(
        _ requested: [[String]], in offices: [Office], ownUID: UInt32,
        fileOwner: (String) -> UInt32?, resolve: (String) -> String?
    ) -> Set<String> {
        let directories = offices.flatMap { temporaryDirectories(of: $0, ownUID: ownUID, fileOwner: fileOwner) }
        guard !directories.isEmpty else { return [] }
        var documents: Set<String> = []
        for readings in requested {
            for path in readings.compactMap(resolve)
            where fileOwner(path) == ownUID && directories.contains(where: { path.hasPrefix($0 + "/") }) {
                documents.insert(path)
            }
        }
        return documents
    }

    /// The temporary directories of `office`: the folder of each file it holds open whose
    /// name is `lu<its pid>….tmp`, when `office` is the system's LibreOffice (a
    /// `…/program/soffice.bin` owned by root) of this user and the folder is this user's.
    static func temporaryDirectories(of office: Office, ownUID: UInt32, fileOwner: (String) -> UInt32?) -> [String] {
        guard office.process.uid == ownUID, let program = office.process.executable,
              program.hasSuffix("/program/soffice.bin"), fileOwner(program) == 0 else { return [] }
        let prefix = "lu\(office.process.pid)"
        var directories: [String] = []
        for file in office.openFiles {
            guard let slash = file.lastIndex(of: "/"), slash > file.startIndex else { continue }
            let directory = String(file[..<slash])
            let name = directory.split(separator: "/").last ?? ""
            guard name.hasPrefix(prefix), name.hasSuffix(".tmp"), !directories.contains(directory),
                  fileOwner(directory) == ownUID else { continue }
            directories.append(directory)
        }
        return directories
    }
}
