package partitioner

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Partitioner identifies how Cassandra turns a partition key into a token.
// The zero value is Murmur3, Cassandra's default.
type Partitioner uint8

const (
	// Murmur3 is org.apache.cassandra.dht.Murmur3Partitioner: the token is
	// h1 of Hash3x64_128(key, 0) as a signed int64 (LongToken).
	Murmur3 Partitioner = iota
	// ByteOrdered is org.apache.cassandra.dht.ByteOrderedPartitioner: the
	// token is the key bytes themselves (BytesToken).
	ByteOrdered
	// Random is org.apache.cassandra.dht.RandomPartitioner: the token is
	// the absolute value of the MD5 digest read as a signed 128-bit
	// BigInteger (BigIntegerToken).
	Random
)

// ErrUnknown is returned by Parse for a name it does not know.
var ErrUnknown = errors.New("partitioner: unknown partitioner")

// Parse accepts a short name ("murmur3", "byteordered", "random"), a
// Cassandra class name ("Murmur3Partitioner") or a fully qualified one
// ("org.apache.cassandra.dht.Murmur3Partitioner"), case-insensitively.
func Parse(name string) (Partitioner, error) {
	s := strings.ToLower(strings.TrimSpace(name))
	s = strings.TrimPrefix(s, "org.apache.cassandra.dht.")
	s = strings.TrimSuffix(s, "partitioner")
	switch s {
	case "murmur3":
		return Murmur3, nil
	case "byteordered":
		return ByteOrdered, nil
	case "random":
		return Random, nil
	}
	return 0, fmt.Errorf("%w %q", ErrUnknown, name)
}

// String returns the short name that Parse accepts.
func (p Partitioner) String() string {
	switch p {
	case Murmur3:
		return "murmur3"
	case ByteOrdered:
		return "byteordered"
	case Random:
		return "random"
	}
	return "Partitioner(" + strconv.Itoa(int(p)) + ")"
}

// ClassName returns Cassandra's fully qualified class name for p.
func (p Partitioner) ClassName() string {
	switch p {
	case Murmur3:
		return "org.apache.cassandra.dht.Murmur3Partitioner"
	case ByteOrdered:
		return "org.apache.cassandra.dht.ByteOrderedPartitioner"
	case Random:
		return "org.apache.cassandra.dht.RandomPartitioner"
	}
	return ""
}
