package buildpath

import (
	"errors"
	"testing"
)

func TestParseRoundTrip(t *testing.T) {
	for _, p := range All {
		got, err := Parse(p.String())
		if err != nil || got != p {
			t.Errorf("Parse(%q) = %v, %v; want %v", p.String(), got, err, p)
		}
	}
	_, err := Parse("fast")
	var pe *Error
	if !errors.As(err, &pe) || pe.Value != "fast" {
		t.Errorf("Parse(\"fast\") error = %v; want *Error naming the value", err)
	}
}
