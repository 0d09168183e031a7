// Command broken does not compile, on purpose: the harness's tests check
// that a failed build fails every test that asks for it, with the
// compiler's words.
package main

func main() {
	var n int = "not a number"
	_ = n
}
