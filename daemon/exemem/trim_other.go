//go:build !linux

package exemem

// Trim does nothing outside Linux.
func Trim() (Result, error) { return Result{}, nil }

// Mappings returns nothing outside Linux.
func Mappings() ([]Mapping, error) { return nil, nil }
