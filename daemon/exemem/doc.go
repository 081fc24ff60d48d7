// Package exemem owns the resident pages of the running executable's
// read-only mappings (its code, read-only data and Go's pclntab).
//
// lunad's executable is ~100 MB (cgo: tree-sitter grammars' parse tables,
// the SDKs, Go's pclntab). On Linux ≥ 6.x the page cache of a file on ext4,
// xfs, btrfs or tmpfs holds large folios, and a fault on a 2 MiB-aligned
// part of the file is answered by mapping the whole 2 MiB folio with one
// PMD (smaps: FilePmdMapped), so touching one function makes 2 MiB of the
// executable count in the process's RSS. The daemon at 10,000 artifacts
// had 58 MiB of its executable resident that way, ~53 MiB of it
// PMD-mapped: nearly the whole text (26 of 27 MiB) and most of the
// read-only data.
//
// Trim marks those mappings MADV_NOHUGEPAGE, which the kernel honours for
// file folios too (do_set_pmd refuses a PMD mapping in a VMA with THP
// disabled), and drops their current mappings with
// MADV_DONTNEED. The pages stay in the page cache (nothing is read again
// from disk); what the process touches afterwards is mapped back with
// 4 KiB page table entries. The kernel still maps a whole large folio at
// a fault in it (~1 MiB on average for lunad's binary), so the RSS keeps
// the folios the process touches, but no longer the untouched rest of the
// 2 MiB ones: 60 → 46 MiB for the daemon (docs/benchmarks.md).
// Only clean, private, non-writable mappings of the executable itself with
// no anonymous (copy-on-write) page are trimmed: dropping them loses
// nothing. Elsewhere than Linux Trim does nothing.
package exemem
