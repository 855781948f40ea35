package workspacefs

import "time"

// retryTransient runs op until it succeeds or fails for a reason transient does not
// name, sleeping before each new try as long as backoff says; once the backoff is
// spent it returns op's last error.
func retryTransient(op func() error, transient func(error) bool, backoff []time.Duration, sleep func(time.Duration)) error {
	err := op()
	for _, wait := range backoff {
		if err == nil || !transient(err) {
			return err
		}
		sleep(wait)
		err = op()
	}
	return err
}
