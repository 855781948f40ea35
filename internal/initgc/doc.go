// Package initgc holds the garbage collector off while the program's packages
// initialize. Their initializers allocate about 4.6 MB, which crosses the
// collector's first goal of 4 MB, and a collection in the middle of them costs
// every run about 3 ms of its start, whatever the command. Go initializes the
// packages whose imports are initialized in the order of their import paths, so
// this one, which imports only runtime/debug, runs before the large
// initializers (the JSON Schema validator's metaschemas, govalidator's
// patterns); GODEBUG=inittrace=1 shows the order.
//
// It imports nothing of this module.
package initgc
