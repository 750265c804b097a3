module github.com/bti-go/bti

go 1.25.0

require (
	github.com/RoaringBitmap/roaring v1.9.4
	github.com/blevesearch/vellum v1.2.1
	github.com/google/btree v1.1.3
	github.com/stretchr/testify v1.12.1
	golang.org/x/sys v0.47.0
)

require (
	github.com/bits-and-blooms/bitset v1.24.2 // indirect
	github.com/blevesearch/mmap-go v1.2.0 // indirect
	github.com/mschoch/smat v0.2.0 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
)
