package sim

import (
	"bytes"
	"testing"
)

func TestWriteTaskCSV(t *testing.T) {
	cells := []TaskCell{
		{Task: "name", Policy: "h2o", Budget: 16, Bits: 8, Depth: 0.25, Score: TaskScore{LogProb: -5.1234567}, Full: TaskScore{LogProb: -4.5}},
		{Task: "name", Policy: "window", Budget: 8, Bits: 32, Depth: 1, Score: TaskScore{LogProb: -6}, Full: TaskScore{LogProb: -4.25}},
	}
	var b bytes.Buffer
	if err := WriteTaskCSV(&b, cells); err != nil {
		t.Fatal(err)
	}
	want := "task,policy,budget,bits,depth,score,full_score\n" +
		"name,h2o,16,8,0.25,-5.123457,-4.500000\n" +
		"name,window,8,32,1,-6.000000,-4.250000\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}
