package workspacefs

import (
	"errors"
	"io"
	"testing"
)

// fileReads reads content the way a file does, at most chunks[i] bytes in its
// i-th call (the last of chunks in every call after), and counts the calls.
type fileReads struct {
	content []byte
	chunks  []int
	calls   int
}

func (f *fileReads) read(b []byte) (int, error) {
	chunk := f.chunks[min(f.calls, len(f.chunks)-1)]
	f.calls++
	if len(f.content) == 0 {
		return 0, io.EOF
	}
	n := copy(b[:min(len(b), chunk)], f.content)
	f.content = f.content[n:]
	return n, nil
}

func TestReadAllReadsToTheEndAndAsksNoMoreThanItMust(t *testing.T) {
	tests := []struct {
		name      string
		content   string
		size      int64 // as measured before the read
		chunks    []int
		wantCalls int
	}{
		{"as measured: one read", "hello", 5, []int{1 << 20}, 1},
		{"empty: one read", "", 0, []int{1 << 20}, 1},
		{"grew since it was measured: read on", "hello, world", 5, []int{1 << 20}, 3},
		{"shrank since it was measured: the read that says so", "he", 5, []int{1 << 20}, 2},
		{"a byte a call: read to the end it reports", "hello", 5, []int{1}, 6},
		{"grew, a byte a call: read on to its end", "hello, world", 5, []int{1}, 13},
		{"grew: a later read as long as the measured size is no end", "hello, world", 2, []int{3, 2}, 7},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fileReads{content: []byte(tt.content), chunks: tt.chunks}
			data, err := readAll(f.read, tt.size, 1<<20)
			if err != nil || string(data) != tt.content {
				t.Fatalf("readAll = %q, %v; want %q", data, err, tt.content)
			}
			if f.calls != tt.wantCalls {
				t.Errorf("%d reads, want %d", f.calls, tt.wantCalls)
			}
		})
	}
}

func TestReadAllRefusesMoreThanItsLimit(t *testing.T) {
	for _, size := range []int64{4, 11} { // measured under the limit and over it
		f := &fileReads{content: []byte("hello, world"), chunks: []int{1 << 20}}
		if _, err := readAll(f.read, size, 8); !errors.Is(err, ErrTooLarge) {
			t.Errorf("size %d: err = %v, want ErrTooLarge", size, err)
		}
	}
	f := &fileReads{content: []byte("12345678"), chunks: []int{1 << 20}}
	if data, err := readAll(f.read, 8, 8); err != nil || string(data) != "12345678" {
		t.Errorf("a file of exactly the limit: %q, %v", data, err)
	}
}
