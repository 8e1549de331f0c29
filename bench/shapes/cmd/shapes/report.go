package main

import (
	"os"

	"github.com/zerokube/zerokube/bench/shapes"
)

func writeReport(path string) error {
	samples, err := shapes.ReadSamples(path)
	if err != nil {
		return err
	}
	_, err = os.Stdout.WriteString(shapes.Report(samples))
	return err
}
