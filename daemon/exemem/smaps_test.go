package exemem

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/lunad/lunad"
)

const smapsSample = `00400000-00402000 r--p 00000000 fe:00 42                           /bin/lunad
Size:                  8 kB
Rss:                   8 kB
Anonymous:             0 kB
VmFlags: rd mr mw me 
00402000-01e9c000 r-xp 00002000 fe:00 42                           /bin/lunad
Rss:               26680 kB
Anonymous:             0 kB
FilePmdMapped:     24576 kB
VmFlags: rd ex mr mw me nh
04ab6000-04abd000 r--p 046b5000 fe:00 42                           /bin/lunad
Rss:                  28 kB
Anonymous:             4 kB
VmFlags: rd mr mw me ac 
04abd000-04b58000 rw-p 046bc000 fe:00 42                           /bin/lunad
Rss:                 532 kB
7f0000000000-7f0000001000 r--p 00000000 fe:00 43                           /usr/lib/libc.so.6
Rss:                   4 kB
7f0000002000-7f0000003000 r--s 00000000 fe:00 42                           /bin/lunad
Rss:                   4 kB
7ffc00000000-7ffc00021000 rw-p 00000000 00:00 0                          [stack]
Rss:                  12 kB
`

func TestParseSmaps(t *testing.T) {
	got, err := parseSmaps(strings.NewReader(smapsSample), "fe:00", 42)
	if err != nil {
		t.Fatal(err)
	}
	want := []Mapping{
		{Start: 0x400000, End: 0x402000, Perms: "r--p", Rss: 8 << 10},
		{Start: 0x402000, End: 0x1e9c000, Perms: "r-xp", Rss: 26680 << 10, FilePmdMapped: 24576 << 10, NoHugePage: true},
		{Start: 0x4ab6000, End: 0x4abd000, Perms: "r--p", Rss: 28 << 10, Anonymous: 4 << 10},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("parseSmaps =\n%+v\nwant\n%+v", got, want)
	}
}

func TestParseSmapsInvalid(t *testing.T) {
	for name, in := range map[string]string{
		"short header":   "00400000-00402000 r--p 00000000\n",
		"reversed range": "00402000-00400000 r--p 00000000 fe:00 42 /bin/lunad\n",
		"bad inode":      "00400000-00402000 r--p 00000000 fe:00 x /bin/lunad\n",
		"bad rss":        "00400000-00402000 r--p 00000000 fe:00 42 /bin/lunad\nRss: many kB\n",
		"rss no unit":    "00400000-00402000 r--p 00000000 fe:00 42 /bin/lunad\nRss: 8\n",
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := parseSmaps(strings.NewReader(in), "fe:00", 42); !errors.Is(err, lunad.ErrInvalid) {
				t.Errorf("parseSmaps(%q) = %v, want ErrInvalid", in, err)
			}
		})
	}
}

func FuzzParseSmaps(f *testing.F) {
	f.Add(smapsSample)
	f.Add("00400000-00402000 r--p 00000000 fe:00 42 /bin/lunad\nRss: 8 kB\n")
	f.Fuzz(func(t *testing.T, in string) {
		ms, err := parseSmaps(strings.NewReader(in), "fe:00", 42)
		if err != nil {
			if !errors.Is(err, lunad.ErrInvalid) {
				t.Fatalf("error %v does not wrap ErrInvalid", err)
			}
			return
		}
		for _, m := range ms {
			if m.End <= m.Start || m.Perms[1] == 'w' || m.Perms[3] != 'p' {
				t.Fatalf("mapping %+v should not be kept", m)
			}
		}
	})
}
