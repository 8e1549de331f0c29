package bench_test

import (
	"fmt"
	"time"

	"github.com/zerokube/zerokube/bench"
)

func ExampleLatencies() {
	var l bench.Latencies
	for i := 1; i <= 100; i++ {
		l.Add(time.Duration(i) * time.Microsecond)
	}
	fmt.Println(bench.Micros(l.Percentile(50)), bench.Micros(l.Percentile(99)), bench.Micros(l.Max()))
	// Output: 50 99 100
}
