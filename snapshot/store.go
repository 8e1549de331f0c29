package snapshot

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Store keeps snapshots by name. Save must be atomic: after a crash at any
// point, Load returns either the previous snapshot, whole, or the new one,
// whole. Implementations must be safe for concurrent use with different
// names; one name has one writer (its informer).
type Store interface {
	// Save replaces the snapshot called name with the bytes write writes.
	// If write or anything else fails, the previous snapshot stays.
	Save(ctx context.Context, name string, write func(io.Writer) error) error
	// Load opens the snapshot called name. With none saved the error wraps
	// ErrNotFound. If the returned reader has a Stat() (fs.FileInfo,
	// error) method, as *os.File does, readers use its size to bound
	// what they allocate.
	Load(ctx context.Context, name string) (io.ReadCloser, error)
}

// Dir is a Store of files in a directory, one file per name (name + ".snap"),
// created with mode 0600 in a directory created with mode 0700 if needed:
// cached objects can hold secrets. The zero value is not usable: set Path.
type Dir struct {
	Path string
	// NoSync skips the fsyncs, for tests and benchmarks on throwaway
	// directories: a crash may then leave an empty or partial file, which
	// readers reject.
	NoSync bool

	// synced, when set, is told of each fsync done, with what was synced
	// ("file", the temporary file, or "dir", the directory): a test's
	// window on the one ordering a crash cannot see otherwise.
	synced func(what, path string)
}

var _ Store = Dir{}

// Suffix is the file name suffix of a Dir's snapshots.
const Suffix = ".snap"

func (d Dir) file(name string) (string, error) {
	if name == "" || name != filepath.Base(name) || strings.HasPrefix(name, ".") ||
		strings.ContainsAny(name, `/\`+"\x00") {
		return "", fmt.Errorf("snapshot: invalid name %q (want a plain file name)", name)
	}
	if d.Path == "" {
		return "", errors.New("snapshot: Dir.Path is empty")
	}
	return filepath.Join(d.Path, name+Suffix), nil
}

// Save writes to a temporary file in the same directory, fsyncs it, renames
// it over the old file and fsyncs the directory, so that the rename itself
// survives a crash. Temporary files left by a crash are removed first.
func (d Dir) Save(ctx context.Context, name string, write func(io.Writer) error) (err error) {
	path, err := d.file(name)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(d.Path, 0o700); err != nil {
		return fmt.Errorf("snapshot: %w", err)
	}
	d.removeTemps(name)
	f, err := os.CreateTemp(d.Path, name+Suffix+".tmp-*")
	if err != nil {
		return fmt.Errorf("snapshot: %w", err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	bw := bufio.NewWriterSize(f, 256<<10)
	if err := write(bw); err != nil {
		return fmt.Errorf("snapshot: writing %s: %w", name, err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("snapshot: writing %s: %w", name, err)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("snapshot: saving %s: %w", name, err)
	}
	if err := d.sync(f); err != nil {
		return fmt.Errorf("snapshot: fsync %s: %w", f.Name(), err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("snapshot: %w", err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("snapshot: %w", err)
	}
	if err := d.syncDir(); err != nil {
		// The file is complete; only its name may not survive a crash.
		return fmt.Errorf("snapshot: fsync directory %s: %w", d.Path, err)
	}
	return nil
}

func (d Dir) sync(f *os.File) error {
	if d.NoSync {
		return nil
	}
	if err := f.Sync(); err != nil {
		return err
	}
	d.observe("file", f.Name())
	return nil
}

func (d Dir) observe(what, path string) {
	if d.synced != nil {
		d.synced(what, path)
	}
}

func (d Dir) syncDir() error {
	if d.NoSync {
		return nil
	}
	dir, err := os.Open(d.Path)
	if err != nil {
		return err
	}
	defer dir.Close()
	if err := dir.Sync(); err != nil {
		return err
	}
	d.observe("dir", d.Path)
	return nil
}

// removeTemps deletes temporary files a crashed Save of name left behind.
func (d Dir) removeTemps(name string) {
	old, _ := filepath.Glob(filepath.Join(d.Path, name+Suffix+".tmp-*"))
	for _, p := range old {
		os.Remove(p)
	}
}

// Load opens the file; with none it returns an error wrapping ErrNotFound
// and fs.ErrNotExist.
func (d Dir) Load(ctx context.Context, name string) (io.ReadCloser, error) {
	path, err := d.file(name)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: %w", ErrNotFound, err)
	}
	if err != nil {
		return nil, fmt.Errorf("snapshot: %w", err)
	}
	return f, nil
}

// LoadFrom opens the snapshot called name in s and decodes it for want: the
// usual way to read one. A missing snapshot is an error wrapping
// ErrNotFound; a rejected one an *Error.
func LoadFrom[T any](ctx context.Context, s Store, name string, want Identity, opts ReadOptions) (Header, []*T, error) {
	rc, err := s.Load(ctx, name)
	if err != nil {
		return Header{}, nil, err
	}
	defer rc.Close()
	if st, ok := rc.(interface{ Stat() (fs.FileInfo, error) }); ok && opts.Size <= 0 {
		if fi, err := st.Stat(); err == nil && fi.Mode().IsRegular() {
			opts.Size = fi.Size()
		}
	}
	return Decode[T](ctx, rc, want, opts)
}

// SaveTo encodes items into the snapshot called name in s, atomically.
func SaveTo[T any](ctx context.Context, s Store, name string, h Header, items []T) error {
	return s.Save(ctx, name, func(w io.Writer) error { return Encode(ctx, w, h, items) })
}
