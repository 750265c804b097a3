package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/bti-go/bti/bytecomparable"
	"github.com/bti-go/bti/partitioner"
	"github.com/bti-go/bti/partitionindex"
	"github.com/bti-go/bti/rowindex"
	"github.com/bti-go/bti/tableindex"
)

// The table half: what an sstable writer does with both index files. A
// partition with more than one index block (about 16 KiB of Data.db each)
// gets a row index in Rows.db, and Partitions.db points at it; a narrow
// one is found in Data.db directly.

// clusteringCols is the table's clustering key: one int column.
var clusteringCols = []bytecomparable.Column{{Type: bytecomparable.Int}}

func clustering(v int32) [][]byte {
	return [][]byte{binary.BigEndian.AppendUint32(nil, uint32(v))}
}

// widePartition is a partition as the sstable writer sees it: block j holds
// the rows 100j .. 100j+49 and starts 16 KiB·j into the partition.
type widePartition struct {
	key     []byte
	dataPos int64
	blocks  int
	value   int64 // what Partitions.db stores, from FinishPartition
}

func (p *widePartition) block(j int) rowindex.Block {
	return rowindex.Block{First: clustering(int32(100 * j)), Last: clustering(int32(100*j + 49)), Offset: int64(j) << 14}
}

func (p *widePartition) endPos() int64 { return int64(p.blocks) << 14 }

func runTable(dir string) error {
	partsPath := filepath.Join(dir, "nb-2-bti-Partitions.db")
	rowsPath := filepath.Join(dir, "nb-2-bti-Rows.db")
	parts := widePartitions(300)
	if err := writeTable(partsPath, rowsPath, parts); err != nil {
		return err
	}
	if err := checkTable(partsPath, rowsPath, parts); err != nil {
		return err
	}
	return auditTable(partsPath, rowsPath)
}

// widePartitions makes n text keys in Murmur3 order with 1 to 4 blocks.
func widePartitions(n int) []widePartition {
	keys := make([]partitioner.Key, n)
	for i := range keys {
		keys[i] = partitioner.Murmur3.Decorate(fmt.Appendf(nil, "user-%d", i))
	}
	slices.SortFunc(keys, partitioner.Compare)
	parts := make([]widePartition, n)
	dataPos := int64(0)
	for i, k := range keys {
		parts[i] = widePartition{key: k.Raw, dataPos: dataPos, blocks: 1 + i%4}
		dataPos += parts[i].endPos() + 1
	}
	return parts
}

func writeTable(partsPath, rowsPath string, parts []widePartition) error {
	pf, err := os.Create(partsPath)
	if err != nil {
		return err
	}
	defer pf.Close()
	rf, err := os.Create(rowsPath)
	if err != nil {
		return err
	}
	defer rf.Close()
	w := tableindex.NewWriter(pf, rf, tableindex.Options{Partitioner: partitioner.Murmur3, Columns: clusteringCols})
	for i := range parts {
		p := &parts[i]
		if err := w.StartPartition(p.key, p.dataPos, rowindex.Live); err != nil {
			return err
		}
		for j := range p.blocks {
			if err := w.AddBlock(p.block(j)); err != nil {
				return err
			}
		}
		res, err := w.FinishPartition(p.endPos())
		if err != nil {
			return err
		}
		p.value = res.Value
	}
	if _, err := w.Complete(); err != nil {
		return err
	}
	if err := rf.Close(); err != nil {
		return err
	}
	return pf.Close()
}

func checkTable(partsPath, rowsPath string, parts []widePartition) error {
	ix, err := partitionindex.Open(partsPath, partitionindex.OpenOptions{Partitioner: partitioner.Murmur3})
	if err != nil {
		return err
	}
	defer ix.Close()
	r, err := ix.OpenReader()
	if err != nil {
		return err
	}
	defer r.Close()
	rows, err := os.ReadFile(rowsPath) // rowindex reads bytes; an engine would mmap
	if err != nil {
		return err
	}

	indexed := 0
	for i := range parts {
		p := &parts[i]
		key := partitioner.Murmur3.Decorate(p.key)
		pos, ok, err := r.Get(&key)
		if err != nil {
			return err
		}
		if !ok || pos != p.value {
			return fmt.Errorf("partition %x: Partitions.db gives %d (ok %v), FinishPartition stored %d", p.key, pos, ok, p.value)
		}
		if p.blocks == 1 {
			if !partitionindex.IsDataPosition(pos) || partitionindex.PositionOffset(pos) != p.dataPos {
				return fmt.Errorf("partition %x: one block, want Data.db %d, got position %d", p.key, p.dataPos, pos)
			}
			continue
		}
		indexed++
		part, err := rowindex.OpenPartition(rows, pos, clusteringCols)
		if err != nil {
			return err
		}
		// The entry starts with the key: this confirms the candidate.
		if e := part.Entry; !bytes.Equal(e.Key, p.key) || e.DataPosition != p.dataPos || e.Blocks != p.blocks {
			return fmt.Errorf("partition %x: Rows.db entry has key %x, Data.db %d, %d blocks", p.key, e.Key, e.DataPosition, e.Blocks)
		}
		rr := part.NewReader()
		for j := range p.blocks {
			// A row of block j is found in block j. (A clustering between
			// two blocks may be answered with either: the separator lies
			// just above the previous block's last row.)
			for _, row := range []int32{int32(100 * j), int32(100*j + 25), int32(100*j + 49)} {
				info, ok, err := rr.Floor(clustering(row), bytecomparable.Clustering)
				if err != nil || !ok || info.Offset != p.block(j).Offset {
					return fmt.Errorf("partition %x, row %d: block at %d (ok %v, %v), want %d", p.key, row, info.Offset, ok, err, p.block(j).Offset)
				}
			}
		}
		// Past every row: the end entry, the partition's length.
		if info, _, err := rr.Floor(clustering(1<<30), bytecomparable.Clustering); err != nil || !info.End || info.Offset != p.endPos() {
			return fmt.Errorf("partition %x: past the last row got %+v (%v), want the end at %d", p.key, info, err, p.endPos())
		}
	}
	fmt.Printf("consumer: wrote and read back a table index of %d partitions, %d with a row index (%d + %d bytes)\n",
		len(parts), indexed, fileSize(partsPath), fileSize(rowsPath))
	return nil
}
