package docs_test

import (
	"bufio"
	"fmt"

	"github.com/zerokube/zerokube/docs"
)

// The teaching pages travel inside the program that imports the package:
// the demo serves them to its live page with no network.
func ExamplePages() {
	f, err := docs.Pages.Open("internals.md")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	title := bufio.NewScanner(f)
	title.Scan()
	fmt.Println(title.Text())
	// Output: # How the informer works
}
