import DesktopIntegration

/// One setting as the configuration has it: its value, the file it comes from, and whether
/// an administrator locked it (docs/configuration.md, "Fleet defaults").
public struct Setting: Sendable, Equatable {
    public var group: String
    public var key: String
    public var value: String
    /// The file the value comes from.
    public var file: String
    /// Locked in a system file (`locked=` of its group): the user's file cannot change it.
    public var locked: Bool
    /// The user's file set it too and was not taken, because it is locked: that file.
    public var overriddenIn: String?

    /// The value as `check` may show it: never a password, nor a password command, which
    /// may hold one (`echo hunter2`).
    public var shownValue: String { key == "password" || key == "password-command" ? "(hidden)" : value }
}

/// The keys of one group of the configuration, each from the most important file that
/// sets it: the user's file over the system's, unless a system file locked the key.
public struct SettingsGroup: Sendable {
    public var name: String
    /// In the order first seen, the system files' first.
    public var settings: [Setting] = []
    /// Where a mistake in this group is to be mended: the user's file when the group is
    /// there, else the file that has it.
    public var file: String

    public func setting(_ key: String) -> Setting? { settings.first { $0.key == key } }

    /// The value, without the spaces around it; `nil` when unset or empty.
    public func value(_ key: String) -> String? {
        setting(key).map { $0.value.trimmingSpaces() }.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The value as written (a password keeps its spaces).
    public func rawValue(_ key: String) -> String? { setting(key)?.value }

    /// The file `key` comes from, else the group's.
    public func file(of key: String) -> String { setting(key)?.file ?? file }

    public var keys: [String] { settings.map(\.key) }
}

/// The config files in the order they are laid over each other: the system's (each
/// directory of `$XDG_CONFIG_DIRS`, the least important first, as the XDG Base Directory
/// spec orders them), then the user's. A later file's value wins, except for a key a
/// system file locked: an administrator writes `locked=KEY;KEY` (or `locked=*`, the whole
/// group) in a group of `/etc/xdg/mailto-route/config`, and the user's file then cannot
/// change those keys; what it says about them is named in `notices`.
struct ConfigLayers {
    struct Layer {
        var path: String
        var mode: UInt32
        var file: KeyFile
        var isSystem: Bool
    }

    /// The key that locks keys, read in system files only.
    static let lockKey = "locked"

    var layers: [Layer]

    /// The groups, in the order first seen.
    var groupNames: [String] {
        var names: [String] = []
        for layer in layers {
            for group in layer.file.groups where !names.contains(group) { names.append(group) }
        }
        return names
    }

    /// The keys a system file locked in `group`; `["*"]`: all of them.
    func lockedKeys(in group: String) -> Set<String> {
        Set(layers.filter(\.isSystem).flatMap { layer in
            layer.file.stringList(group, Self.lockKey).map { $0.trimmingSpaces() }.filter { !$0.isEmpty }
        })
    }

    /// `group` as the layers make it, and what was not taken of the user's.
    func group(_ name: String) -> (group: SettingsGroup, notices: [String]) {
        let locks = lockedKeys(in: name)
        var settings: [Setting] = []
        var notices: [String] = []
        var home: String?
        for layer in layers where layer.file.groups.contains(name) {
            if home == nil || !layer.isSystem { home = layer.path }
            for key in layer.file.keys(in: name) {
                if key == Self.lockKey {
                    if !layer.isSystem {
                        notices.append("\(layer.path): locked= in [\(name)] is read only in a system configuration file (\(ConfigLayers.systemFileName)); ignored")
                    }
                    continue
                }
                guard let value = layer.file.string(name, key) else { continue }
                let locked = locks.contains(key) || locks.contains("*")
                if let index = settings.firstIndex(where: { $0.key == key }) {
                    if settings[index].locked, !layer.isSystem {
                        settings[index].overriddenIn = layer.path
                        notices.append("\(layer.path): \(key)= in [\(name)] is not used: it is locked by the administrator in \(settings[index].file)")
                        continue
                    }
                    settings[index].value = value
                    settings[index].file = layer.path
                    settings[index].locked = locked && layer.isSystem
                } else if locked, !layer.isSystem {
                    // Locked without a value of the system's: the built-in default stands.
                    notices.append("\(layer.path): \(key)= in [\(name)] is not used: it is locked by the administrator to its default")
                } else {
                    settings.append(Setting(group: name, key: key, value: value, file: layer.path, locked: locked && layer.isSystem))
                }
            }
        }
        return (SettingsGroup(name: name, settings: settings, file: home ?? ""), notices)
    }

    /// `mailto-route/config` below each directory of `$XDG_CONFIG_DIRS`.
    static let systemFileName = "/etc/xdg/mailto-route/config"
}
