;; Hostile: spins forever on every call.
(defn HySpinner [hist score]
  (while True))
