package core

func NonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
