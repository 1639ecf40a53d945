;; Hostile: leaves the process at once with os._exit (a crash, replaced next game).
(import os)
(defn HyExiter [hist score]
  (os._exit 0))
