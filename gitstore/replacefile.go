package gitstore

import (
	"os"
	"path/filepath"
)

// replaceFile replaces name with data in one step: a temp file in tmpDir
// ("": name's directory, which must be on the same filesystem) renamed over
// name, so that a crash leaves the old content or the new one, never a torn
// file. With durable, the data and then the rename are fsynced before it
// returns (HEAD); a list or cache that is rewritten or rebuilt anyway does
// without. It is the store's one way of rewriting a file in place.
func replaceFile(name, tmpDir string, data []byte, durable bool) error {
	if tmpDir == "" {
		tmpDir = filepath.Dir(name)
	}
	tmp, err := os.CreateTemp(tmpDir, ".tmp-"+filepath.Base(name)+"-")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // nothing once renamed
	_, err = tmp.Write(data)
	if err == nil && durable {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), name); err != nil {
		return err
	}
	if durable {
		return syncPath(filepath.Dir(name))
	}
	return nil
}
