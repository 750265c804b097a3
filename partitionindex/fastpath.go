package partitionindex

import (
	"encoding/binary"
	"fmt"

	"github.com/bti-go/bti/bytecomparable"
	"github.com/bti-go/bti/partitioner"
)

// Lookups encode lazily, as Cassandra's ByteSource does. A Murmur3 key's
// encoding starts with 40 <8 token bytes> 40, and a walk over a trie of n
// hashed keys reads about log256(n)+2 bytes of it (5 at a million keys), so
// the lookup walks with those 10 bytes alone and encodes the escaped key
// bytes only in the rare case the walk reaches them (two keys whose tokens
// are equal). The raw key is then never read: no escaping work, and no cache
// miss on the caller's key bytes.

// tokenPrefixLen is the length of a Murmur3 key's token prefix: 40, the
// token, 40.
const tokenPrefixLen = 10

// putTokenPrefix writes the first tokenPrefixLen bytes of the encoding of a
// Murmur3 key (bytecomparable.AppendLongTokenKey) into dst.
func putTokenPrefix(dst *[tokenPrefixLen]byte, token int64) {
	dst[0] = bytecomparable.NextComponent
	binary.BigEndian.PutUint64(dst[1:9], uint64(token)^(1<<63)) // bytecomparable.AppendInt64
	dst[9] = bytecomparable.NextComponent
}

// checkKey is what every key lookup checks first: an open handle and key's
// partitioner. The test is inlined; keyError builds the error.
func (r *Reader) checkKey(key *partitioner.Key) error {
	if r.closed || key.Partitioner != r.part {
		return r.keyError(key)
	}
	return nil
}

// keyError is checkKey's error.
func (r *Reader) keyError(key *partitioner.Key) error {
	if r.closed {
		return ErrClosed
	}
	return fmt.Errorf("%w: index is %v, key is %v", ErrPartitioner, r.ix.part, key.Partitioner)
}

// get is Get. A Murmur3 key whose walk ends within its token prefix (every
// key but one whose token another key shares) answers from that walk alone,
// in one straight path: the branch for the encoded key comes after it, so a
// hit tests the partitioner once and keeps no walk results live across the
// encoding.
func (r *Reader) get(key *partitioner.Key) (int64, bool, error) {
	if err := r.checkKey(key); err != nil {
		return 0, false, err
	}
	if key.Partitioner == partitioner.Murmur3 {
		putTokenPrefix(&r.tok, key.Token)
		node, found, more, err := r.walker.ExactPrefix(r.tok[:])
		if !more {
			if !found || err != nil {
				return 0, false, err // exactResult's answer for no candidate or an error
			}
			flags, payload := r.walker.Payload()
			if flags >= flagHasHashByte && len(payload) > 8 {
				// exactResult's leading case, written here so that a hit
				// makes no call after the walk.
				// The fields HashByte reads, without copying the key for
				// its value receiver.
				hb := byte(key.Hash2)
				if !key.Hashed {
					hb = key.HashByte()
				}
				return hashedPosition(hb, flags, payload)
			}
			return exactResult(key, node, found, flags, payload, err)
		}
	}
	r.enc = key.AppendComparable(r.enc[:0])
	node, found, err := r.walker.Exact(r.enc)
	flags, payload := r.walker.Payload()
	return exactResult(key, node, found, flags, payload, err)
}

// hashedPosition is the answer for a candidate whose payload holds a hash
// byte and at least 8 bytes after it (flags >= flagHasHashByte, len(payload)
// > 8), for a key whose hash byte is hb: decodePayload's leading case, the
// hash byte, then the position as the top flags-7 bytes of one big-endian
// word.
func hashedPosition(hb byte, flags uint8, payload []byte) (int64, bool, error) {
	if payload[0] != hb {
		return 0, false, nil
	}
	return leafPosition(flags, payload), true, nil
}

// exactResult turns an exact walk's answer into Get's (Cassandra's
// exactCandidate): the candidate's position if its hash byte matches key's.
func exactResult(key *partitioner.Key, node int64, found bool, flags uint8, payload []byte, err error) (int64, bool, error) {
	if found && err == nil && flags >= flagHasHashByte && len(payload) > 8 {
		return hashedPosition(key.HashByte(), flags, payload)
	}
	if err != nil || !found {
		return 0, false, err
	}
	hash, hasHash, pos, ok := decodePayload(flags, payload)
	if !ok {
		return 0, false, &CorruptError{Offset: node, Reason: fmt.Sprintf("payload with flags %#x does not fit in the file", flags)}
	}
	if hasHash && hash != key.HashByte() {
		return 0, false, nil
	}
	return pos, true, nil
}
