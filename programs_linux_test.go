package main

import (
	"os"
	"testing"

	"github.com/spirit-app/spirit/platform/xtest"
)

// programs builds the spirit binary once for every test of this package
// that runs it; TestMain removes it.
var programs xtest.Programs

func TestMain(m *testing.M) { os.Exit(programs.Run(m)) }
