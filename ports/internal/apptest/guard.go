package apptest

const (
	AddRule = `{"schema_version":1,"rules":[{"id":"no-terraform-destroy","tier":"block","command":["terraform"],"subcommand":["destroy"],
		"why":"destroys the infrastructure","safer":"terraform plan -destroy","bad":["terraform destroy"],"good":["terraform plan"]}]}`
	DisableRoot = `{"schema_version":1,"disable":["rm-recursive-root"]}`
	LowerRoot   = `{"schema_version":1,"tiers":{"rm-recursive-root":"warn"}}`
	RaiseStash  = `{"schema_version":1,"tiers":{"git-stash-drop":"block"}}`
	SwitchOff   = `{"schema_version":1,"enabled":false}`
)
