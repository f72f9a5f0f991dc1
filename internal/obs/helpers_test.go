package obs

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

// collectorNamed finds a registered collector by metric name.
func collectorNamed(t *testing.T, m *Metrics, name string) prometheus.Collector {
	t.Helper()
	mfs, err := m.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == name {
			return prometheus.NewCounterFunc(prometheus.CounterOpts{Name: name, Help: "copy"},
				func() float64 { return mf.GetMetric()[0].GetCounter().GetValue() })
		}
	}
	t.Fatalf("metric %s not registered", name)
	return nil
}
