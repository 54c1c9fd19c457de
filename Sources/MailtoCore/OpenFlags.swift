/// `open(2)`'s `O_NOATIME`, which Swift's Glibc module leaves out (glibc declares it
/// under `_GNU_SOURCE` only): the file's access time is not updated. Its value is that
/// of every architecture Swift builds for on Linux (asm-generic's `01000000`). Only for
/// files the process owns; elsewhere `open` fails with `EPERM`.
package let O_NOATIME: Int32 = 0o1000000
