// Package initgc holds the garbage collector off while the program's packages
// initialize. Their initializers allocate about 4.6 MB, which crosses the
// collector's first goal of 4 MB, and a collection in the middle of them costs
// every run about 3 ms of its start, whatever the command. Go initializes,
// of the packages whose imports are initialized, the first by import path:
// this one waits only for runtime/debug, whose turn comes when about 0.75 MB
// is allocated, before the dependencies of the large initializers (the JSON
// Schema validator's metaschemas, govalidator's patterns) are ready.
// GODEBUG=inittrace=1 shows the order, and a test of the command checks it.
//
// It imports nothing of this module.
package initgc
