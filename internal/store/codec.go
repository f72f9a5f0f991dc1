package store

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
)

// Version is the codec's current value version. Values carry it in their
// first byte so a later beamclaw can read (and migrate) older records.
const Version byte = 1

// Encode marshals v as a versioned value: one version byte, then JSON.
func Encode(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode: %w", err)
	}
	out := make([]byte, 0, len(b)+1)
	out = append(out, Version)
	return append(out, b...), nil
}

// Decode unmarshals a value written by Encode into v.
func Decode(data []byte, v any) error {
	if len(data) == 0 {
		return fmt.Errorf("decode: empty value")
	}
	if data[0] != Version {
		return fmt.Errorf("decode: value version %d, this beamclaw reads %d", data[0], Version)
	}
	if err := json.Unmarshal(data[1:], v); err != nil {
		return fmt.Errorf("decode: %w", err)
	}
	return nil
}

// Seq encodes n as an 8-byte big-endian key, so keys sort in order.
func Seq(n uint64) []byte {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], n)
	return b[:]
}

// SeqOf decodes a key written by Seq.
func SeqOf(k []byte) uint64 {
	if len(k) != 8 {
		return 0
	}
	return binary.BigEndian.Uint64(k)
}
