package catchup

import "strings"

// JoinErrors is errors.Join on one line: the errors that are not nil,
// separated by "; " (errors.Join's newline would reach the operator as an
// escaped \n inside the one line cmd prints). errors.Is and errors.As see
// each of them. nil when all are nil.
func JoinErrors(errs ...error) error {
	var j joinedErrors
	for _, err := range errs {
		if err != nil {
			j = append(j, err)
		}
	}
	switch len(j) {
	case 0:
		return nil
	case 1:
		return j[0]
	}
	return j
}

type joinedErrors []error

func (j joinedErrors) Error() string {
	parts := make([]string, len(j))
	for i, err := range j {
		parts[i] = err.Error()
	}
	return strings.Join(parts, "; ")
}

func (j joinedErrors) Unwrap() []error { return j }
