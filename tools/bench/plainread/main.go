// Command plainread is the reference for abcd's listings: the least any program could do to look at
// every record file of a repository, written plainly. By default it reads each file whole; with
// -stat it only looks at each (lstat), the least a cache keyed on what the file system says (name,
// size, mtime, inode, ctime) would still have to do. It prints how many files it saw.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/abcd-dev/abcd/domain/record"
)

func main() {
	stat := flag.Bool("stat", false, "lstat each record file instead of reading it")
	flag.Parse()
	n, bytes := 0, 0
	for _, folder := range record.Folders() {
		dir := filepath.FromSlash(folder.Dir)
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			if !strings.HasPrefix(e.Name(), folder.Prefix+"-") || !strings.HasSuffix(e.Name(), ".md") {
				continue
			}
			p := filepath.Join(dir, e.Name())
			if *stat {
				if _, err := os.Lstat(p); err != nil {
					fmt.Fprintln(os.Stderr, err)
					os.Exit(1)
				}
			} else {
				data, err := os.ReadFile(p)
				if err != nil {
					fmt.Fprintln(os.Stderr, err)
					os.Exit(1)
				}
				bytes += len(data)
			}
			n++
		}
	}
	fmt.Println(n, bytes)
}
