package cmd

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/pflag"
)

// unknownShorthand is err with an unknown short flag named by its group
// only up to its letter (-p... for -pS3cret): the rest of the word may be
// a secret, the job's own option taken for catchup's when a flag's value
// or the -- before the command was forgotten. Any other error is err.
func unknownShorthand(err error) error {
	var unknown *pflag.NotExistError
	if !errors.As(err, &unknown) {
		return err
	}
	name, group := unknown.GetSpecifiedName(), unknown.GetSpecifiedShortnames()
	i := strings.Index(group, name)
	if name == "" || group == "" || i < 0 || i+len(name) == len(group) {
		return err
	}
	return fmt.Errorf("unknown shorthand flag: %q in -%s...", rune(name[0]), group[:i+len(name)])
}
