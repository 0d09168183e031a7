// Command stuck says it is ready and then waits forever in waitForever,
// like a Go program hung in a test: the harness's tests check that
// SIGQUIT puts that function in its output.
package main

import (
	"fmt"
	"time"
)

func main() {
	fmt.Println("ready")
	waitForever()
}

//go:noinline
func waitForever() {
	for {
		time.Sleep(time.Hour)
	}
}
