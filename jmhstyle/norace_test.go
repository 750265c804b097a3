//go:build !race

package jmhstyle

func raceEnabled() bool { return false }
