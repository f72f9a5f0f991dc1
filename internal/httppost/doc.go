// Package httppost sends the notifications beamclaw posts to URLs it was
// given (A2A push notifications, scheduled webhook deliveries, the
// webhook channel's answers) and keeps only the answer's status. It
// imports only the standard library; the packages that post import it.
package httppost
