;; The original course call, as close as Hy allows.
(import harness [monitor])

(setv result (monitor '(.25 .1) '(10 50) '(titfortat random KhosmoodLevinson) :seed 4))
(print (hy.repr result))
