package cmd

import (
	"strconv"

	"github.com/spf13/pflag"
)

// decimalValue is an int flag read in decimal, as an operator writes a
// count: "010" is ten. pflag's own int reads Go literals, so "--keep 010"
// was eight (octal), 0x10 sixteen and 1_0 ten, silently; those are errors
// here ("--keep 0x10: not a whole number", tooLong).
type decimalValue int

func (d *decimalValue) Set(s string) error {
	v, err := strconv.ParseInt(s, 10, strconv.IntSize)
	if err != nil {
		return err
	}
	*d = decimalValue(v)
	return nil
}

func (d *decimalValue) Type() string { return "int" }

func (d *decimalValue) String() string { return strconv.Itoa(int(*d)) }

// intVar adds a decimal int flag (decimalValue).
func intVar(f *pflag.FlagSet, p *int, name string, def int, usage string) {
	intVarP(f, p, name, "", def, usage)
}

// intVarP is intVar with a shorthand.
func intVarP(f *pflag.FlagSet, p *int, name, short string, def int, usage string) {
	*p = def
	f.VarP((*decimalValue)(p), name, short, usage)
}
