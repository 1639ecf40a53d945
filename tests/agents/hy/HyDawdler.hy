;; Answers every call late (0.4 s), but does answer: in the monitor's own process, where a
;; call cannot be interrupted, each is a timeout once it returns. Says on stdout when called.
(import time)

(defn HyDawdler [hist score]
  (print "HyDawdler called")
  (time.sleep 0.4)
  ['C 'C 'C])
