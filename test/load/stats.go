package load

import (
	"fmt"
	"math"
	"slices"
	"time"
)

// Summary describes a set of latencies.
type Summary struct {
	N    int           `json:"n"`
	P50  time.Duration `json:"p50_ns"`
	P90  time.Duration `json:"p90_ns"`
	P99  time.Duration `json:"p99_ns"`
	Max  time.Duration `json:"max_ns"`
	Mean time.Duration `json:"mean_ns"`
}

// Summarize sorts a copy of samples and returns its percentiles (nearest
// rank). An empty input gives the zero Summary.
func Summarize(samples []time.Duration) Summary {
	if len(samples) == 0 {
		return Summary{}
	}
	s := slices.Clone(samples)
	slices.Sort(s)
	var sum time.Duration
	for _, d := range s {
		sum += d
	}
	return Summary{
		N:    len(s),
		P50:  Percentile(s, 50),
		P90:  Percentile(s, 90),
		P99:  Percentile(s, 99),
		Max:  s[len(s)-1],
		Mean: sum / time.Duration(len(s)),
	}
}

// Percentile returns the nearest-rank p-th percentile (0 < p <= 100) of
// sorted, which must be in ascending order and non-empty.
func Percentile(sorted []time.Duration, p float64) time.Duration {
	rank := int(math.Ceil(p / 100 * float64(len(sorted))))
	rank = min(max(rank, 1), len(sorted))
	return sorted[rank-1]
}

// Sub returns s minus base, percentile by percentile: the latency a
// proxy adds over the baseline measured in the same run.
func (s Summary) Sub(base Summary) Summary {
	return Summary{
		N:    s.N,
		P50:  s.P50 - base.P50,
		P90:  s.P90 - base.P90,
		P99:  s.P99 - base.P99,
		Max:  s.Max - base.Max,
		Mean: s.Mean - base.Mean,
	}
}

// String formats the summary on one line in milliseconds.
func (s Summary) String() string {
	return fmt.Sprintf("p50 %s  p90 %s  p99 %s  max %s  mean %s  (n=%d)",
		ms(s.P50), ms(s.P90), ms(s.P99), ms(s.Max), ms(s.Mean), s.N)
}

func ms(d time.Duration) string {
	return fmt.Sprintf("%.3fms", float64(d)/float64(time.Millisecond))
}
