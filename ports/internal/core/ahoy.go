package core

import (
	"github.com/abcd-dev/abcd/domain/layout"
)

const (
	AbcdDir          = layout.Root
	RepoConfigRel    = ".abcd/config.json"
	GitignoreRel     = ".abcd/.gitignore"
	RepoRoutingDir   = ".abcd/config"
	RepoRoutingRel   = ".abcd/config/oracle-routing.json"
	MachineRouting   = "oracle-routing.json"
	GitignoreContent = "# abcd's local run state: never committed\n" + layout.Ignore + "\n"
)
