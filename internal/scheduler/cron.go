package scheduler

import (
	"strings"
	"time"

	"github.com/adhocore/gronx"
)

// cronTags are the @-forms accepted for cron (minute resolution only).
var cronTags = map[string]bool{
	"@yearly": true, "@annually": true, "@monthly": true,
	"@weekly": true, "@daily": true, "@hourly": true,
}

// checkCron reports what is wrong with a cron expression, or "".
func checkCron(expr string) string {
	if strings.HasPrefix(expr, "@") {
		if !cronTags[strings.ToLower(expr)] {
			return "unknown cron tag " + expr + "; want @yearly, @monthly, @weekly, @daily or @hourly"
		}
		return ""
	}
	if n := len(strings.Fields(expr)); n != 5 {
		return "a cron expression has 5 fields (minute hour day-of-month month day-of-week)"
	}
	if !gronx.IsValid(expr) {
		return "invalid cron expression"
	}
	return ""
}

// nextCron returns the first instant after after at which clocks in loc
// show a time matching expr. Each matching wall-clock time fires once:
// on DST fall-back the repeated times fire at their first instant only;
// times inside a spring-forward gap fire at the first valid instant after
// it (once, however many of them the gap swallowed).
func nextCron(expr string, loc *time.Location, after time.Time) time.Time {
	w := wallOf(after.In(loc))
	for range maxScan {
		n, err := gronx.NextTickAfter(expr, w, false)
		if err != nil || !n.After(w) {
			return time.Time{}
		}
		if t := fromWall(n, loc); t.After(after) {
			return t
		}
		w = n
	}
	return time.Time{}
}
