package registry

import (
	"fmt"
	"sort"
	"strings"
)

// Closest is the entry of known that got was most likely meant to be: the first
// (in sorted order) that got is the first word of, else the nearest by edit
// distance within about half of got's length; "" when none is that close.
func Closest(got string, known []string) string {
	sorted := append([]string(nil), known...)
	sort.Strings(sorted)
	for _, k := range sorted {
		if got != "" && strings.HasPrefix(k, got+"-") {
			return k
		}
	}
	best, bestDistance := "", len(got)/2+2
	for _, k := range sorted {
		if d := levenshtein(got, k); d < bestDistance {
			best, bestDistance = k, d
		}
	}
	return best
}

// suggest is a hint: "did you mean" the closest of known, else fallback.
func suggest(got string, known []string, fallback string) string {
	if best := Closest(got, known); best != "" {
		return fmt.Sprintf("did you mean %q?", best)
	}
	return fallback
}

func levenshtein(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur := make([]int, len(rb)+1)
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(rb)]
}
