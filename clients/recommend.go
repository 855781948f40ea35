package clients

import (
	"math/bits"
	"slices"
	"strings"
)

// A Recommendation is the set of targets that serves a given set of clients in
// use best, and what even it cannot avoid.
type Recommendation struct {
	// Targets are target names in the order of Targets.
	Targets []string
	// Twice are the clients in use that read two or more of Targets: no set that
	// reaches every client in use avoids it.
	Twice []string
	// Unreached are the clients in use that no target reaches.
	Unreached []string
}

// Recommend picks the targets for a workspace where the clients named inUse are
// used. Of all sets of targets it prefers, in this order: the one that reaches
// the most of them; the one fewest of them read twice; the smallest; the one that
// serves the most of them from their own directory, where skill bodies name MCP
// tools exactly and a skill none can hide is withheld rather than shown; and
// finally the one that leaves out the targets later in Targets. Unknown names are
// ignored; with none in use, the recommendation is empty.
func Recommend(inUse []string) Recommendation {
	var users []Client
	for _, c := range All {
		if slices.Contains(inUse, c.Name) {
			users = append(users, c)
		}
	}
	reads, own := make([]uint, len(users)), make([]uint, len(users))
	for i, c := range users {
		for j, t := range Targets {
			if slices.Contains(c.Reads, t.Dir) {
				reads[i] |= 1 << j
			}
			if t.Owner == c.Name {
				own[i] |= 1 << j
			}
		}
	}
	var best uint
	var bestScore score
	for set := uint(0); set < 1<<len(Targets); set++ {
		s := score{size: bits.OnesCount(set)}
		for i := range users {
			switch bits.OnesCount(reads[i] & set) {
			case 0:
				s.unreached++
				continue
			case 1:
			default:
				s.twice++
			}
			if own[i]&set == 0 {
				s.notOwn++
			}
		}
		if set == 0 || s.less(bestScore) {
			best, bestScore = set, s
		}
	}
	var r Recommendation
	for j, t := range Targets {
		if best&(1<<j) != 0 {
			r.Targets = append(r.Targets, t.Name)
		}
	}
	for i, c := range users {
		switch bits.OnesCount(reads[i] & best) {
		case 0:
			r.Unreached = append(r.Unreached, c.Name)
		case 1:
		default:
			r.Twice = append(r.Twice, c.Name)
		}
	}
	return r
}

// score ranks a set of targets; lower is better, field by field.
type score struct {
	unreached, twice, size, notOwn int
}

func (s score) less(o score) bool {
	for _, d := range [...]int{s.unreached - o.unreached, s.twice - o.twice, s.size - o.size, s.notOwn - o.notOwn} {
		if d != 0 {
			return d < 0
		}
	}
	return false
}

// Measured lists the clients whose facts were seen with the real client.
func Measured() []string {
	var names []string
	for _, c := range All {
		if strings.HasPrefix(c.Source, "measured") {
			names = append(names, c.Name)
		}
	}
	return names
}
