package circle

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
)

// Write writes a conversion's files into dir, which must be empty or not
// exist unless force is set (then files of the same names are replaced).
func Write(dir string, res *Result, force bool) error {
	ents, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("circle: %w", err)
		}
	case err != nil:
		return fmt.Errorf("circle: %w", err)
	case len(ents) > 0 && !force:
		return fmt.Errorf("circle: %s is not empty (use -force to write into it)", dir)
	}
	var names []string
	for n := range res.Files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(dir, n), res.Files[n], 0o644); err != nil {
			return fmt.Errorf("circle: %w", err)
		}
	}
	return nil
}
