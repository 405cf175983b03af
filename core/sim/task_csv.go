package sim

import (
	"encoding/csv"
	"io"
	"strconv"
)

// taskColumns are the columns of a recall task's cells as CSV (kvscope
// -task, and the page's heatmap export).
var taskColumns = []string{"task", "policy", "budget", "bits", "depth", "score", "full_score"}

// TaskCSVHeader returns the CSV header of recall task cells.
func TaskCSVHeader() []string { return append([]string(nil), taskColumns...) }

// CSV returns c as TaskCSVHeader's columns: the scores (mean
// log-probability of the answer's tokens, nats) with six decimals.
func (c TaskCell) CSV() []string {
	return []string{c.Task, c.Policy, strconv.Itoa(c.Budget), strconv.Itoa(c.Bits),
		strconv.FormatFloat(c.Depth, 'g', -1, 64),
		strconv.FormatFloat(c.Score.LogProb, 'f', 6, 64), strconv.FormatFloat(c.Full.LogProb, 'f', 6, 64)}
}

// WriteTaskCSV writes cells as CSV: the header, then one record per cell.
func WriteTaskCSV(w io.Writer, cells []TaskCell) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(taskColumns); err != nil {
		return err
	}
	for _, c := range cells {
		if err := cw.Write(c.CSV()); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
