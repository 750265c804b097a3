module example.com/bti-consumer

go 1.25.0

require github.com/bti-go/bti v0.0.0

require (
	github.com/RoaringBitmap/roaring v1.9.4 // indirect
	github.com/bits-and-blooms/bitset v1.24.2 // indirect
	github.com/mschoch/smat v0.2.0 // indirect
	golang.org/x/sys v0.47.0 // indirect
)

// The checkout this example lives in. A real consumer drops this line and
// runs go get github.com/bti-go/bti@latest.
replace github.com/bti-go/bti => ../..
