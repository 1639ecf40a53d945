;; Hostile: tries to read a file only root may read (the test fills in its path). Move 1 D
;; when the read succeeded, move 3 D when it runs as root.
(import os)

(setv SECRET "")

(defn HySecretReader [hist score]
  (setv read (try (do (with [f (open SECRET "rb")] (.read f)) True)
               (except [OSError] False)))
  [(if read "D" "C") "C" (if (in 0 (os.getresuid)) "D" "C")])
