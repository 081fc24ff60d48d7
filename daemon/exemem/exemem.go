package exemem

// Mapping is one read-only mapping of the executable, as /proc/self/smaps
// shows it.
type Mapping struct {
	Start, End uint64 // the virtual address range [Start, End)
	Perms      string // "r-xp", "r--p"
	// Rss, Anonymous and FilePmdMapped are in bytes.
	Rss, Anonymous, FilePmdMapped uint64
	NoHugePage                    bool // VmFlags has "nh"
}

// Result is what Trim did.
type Result struct {
	Mappings int    // read-only mappings of the executable trimmed
	Released uint64 // their resident bytes before (they fault back in as used)
}
