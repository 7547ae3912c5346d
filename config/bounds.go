package config

import (
	"errors"
	"fmt"
	"math"
	"net"
	"reflect"
	"strconv"
	"strings"

	"github.com/go-playground/validator/v10"
)

// Bounds and formats of single keys are validate tags on the fields of
// Config (go-playground/validator's min, max, gt, oneof, omitempty, dive;
// our finite, refusing NaN and ±Inf, and the formats below); a hint tag
// names the unit. checkBounds words each failure as every config error
// reads: the key, the value, then the whole bound or what the format check
// says. Only rules between keys are written by hand.
var bounds = func() *validator.Validate {
	v := validator.New(validator.WithRequiredStructEnabled())
	v.RegisterTagNameFunc(func(f reflect.StructField) string { return f.Tag.Get("koanf") })
	err := v.RegisterValidation("finite", func(fl validator.FieldLevel) bool {
		return !math.IsNaN(fl.Field().Float()) && !math.IsInf(fl.Field().Float(), 0)
	})
	for tag, check := range formats {
		err = errors.Join(err, v.RegisterValidation(tag, func(fl validator.FieldLevel) bool { return check(fl.Field().String()) == nil }))
	}
	if err != nil {
		panic(err)
	}
	return v
}()

// formats are validate tags of text keys whose check says what is wrong.
var formats = map[string]func(string) error{
	"listen":   func(s string) error { return checkHostPort(s, true, 0) },
	"hostport": func(s string) error { return checkHostPort(s, false, 1) },
	"name":     checkName,
	"host":     checkHost,
	"origin":   checkOrigin,
	"trimmed":  func(s string) error { return errorIf(strings.TrimSpace(s) != s, "must not start or end with spaces") },
	"memlimit": func(s string) error { _, err := ParseMemoryLimit(s); return err },
	"addr": func(s string) error {
		_, _, err := net.SplitHostPort(s)
		return errorIf(err != nil, "must be host:port (or empty for no extra listener)")
	},
	"scope": validStreamScope,
	"groupscope": func(s string) error {
		if err := validStreamScope(s); err != nil {
			return fmt.Errorf("%w (a consumer group name, a name followed by '*', or '*')", err)
		}
		return nil
	},
	"advertise": func(s string) error {
		return errors.Join(checkHost(s), errorIf(isWildcardHost(s), "is the all-interfaces address, which no other node can connect to; advertise this node's own address"))
	},
}

// errorIf is an error saying text when cond holds.
func errorIf(cond bool, text string) error {
	if cond {
		return errors.New(text)
	}
	return nil
}

// badFunc reports one problem: "config: KEY = VALUE: what is wrong".
type badFunc func(key string, value any, format string, args ...any)

func collect(errs *[]error) badFunc {
	return func(key string, value any, format string, args ...any) {
		*errs = append(*errs, fmt.Errorf("config: %s = %s: %s", key, show(value), fmt.Sprintf(format, args...)))
	}
}

// checkBounds validates v, the section named section (or "" for the whole
// Config), against its tags and returns the keys that failed, so that rules
// between keys can skip them (one mistake is reported once).
func checkBounds(section string, v any, bad badFunc) (failed map[string]bool) {
	failed = map[string]bool{}
	var fes validator.ValidationErrors
	if err := bounds.Struct(v); err != nil && !errors.As(err, &fes) {
		panic("config: " + err.Error()) // a malformed tag: a programming error
	}
	for _, fe := range fes {
		ns := fe.Namespace() // "Config.coordination.heartbeat-interval"
		key := strings.TrimPrefix(section+ns[strings.IndexByte(ns, '.'):], ".")
		failed[key] = true
		if check := formats[fe.Tag()]; check != nil {
			bad(key, fe.Value(), "%v", check(fe.Value().(string)))
		} else {
			bad(key, fe.Value(), "%s", boundText(byKey[key], fe.Tag()))
		}
	}
	return failed
}

// boundText says what a key takes, from all of its tags: "must be between
// 1 and 4096", "must be greater than 0 (requests per second)".
func boundText(s *setting, failedTag string) string {
	b := map[string]string{}
	for _, t := range strings.Split(s.Valid, ",") {
		k, v, _ := strings.Cut(t, "=")
		b[k] = param(s, v)
	}
	lo, hasMin := b["min"]
	hi, hasMax := b["max"]
	gt, hasGt := b["gt"]
	var text string
	switch {
	case failedTag == "finite":
		return "must be a number"
	case failedTag == "oneof":
		text = "must be one of " + strings.Join(strings.Fields(b["oneof"]), ", ")
	case failedTag == "gt" && hasMin:
		text = "must be greater than " + gt
	case hasMin && hasMax:
		text = fmt.Sprintf("must be between %s and %s", lo, hi)
	case hasGt && hasMax:
		text = fmt.Sprintf("must be greater than %s and at most %s", gt, hi)
	case hasGt:
		text = "must be greater than " + gt
	case lo == "0":
		text = "must not be negative"
	case hasMin:
		text = "must be at least " + lo
	default:
		text = "must be at most " + hi
	}
	if s.Hint != "" {
		text += " (" + s.Hint + ")"
	}
	return text
}

// param shows a bound as the key's values are shown: a byte size in its
// unit ("1KiB"); others as the tag writes them ("1m0s", "4096").
func param(s *setting, p string) string {
	if n, err := strconv.ParseInt(p, 10, 64); err == nil && s.Type == reflect.TypeOf(ByteSize(0)) {
		return ByteSize(n).String()
	}
	return p
}
