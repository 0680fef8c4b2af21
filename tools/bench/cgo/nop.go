// SPDX-License-Identifier: LGPL-2.1-or-later
//
// The Go side of tools/bench/cgo/run: one exported function that does
// nothing, built as a c-archive, so that each call from C is a cgo
// callback on a thread Go did not make (Go 1.21 asks pthread_getattr_np()
// for that thread's stack on each such callback).
package main

import "C"

//export GoNop
func GoNop() {}

func main() {}
