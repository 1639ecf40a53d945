;; Defects when it can see compiled agents in the harness cache (other agents' code).
(import os)

(defn Peeker [hist score]
  (setv folder (os.path.join (os.environ.get "PDHARNESS_CACHE" "/nonexistent") "agents" "hy"))
  (if (and (os.path.isdir folder) (os.listdir folder))
      ["D" "D" "D"]
      ["C" "C" "C"]))
