;; A Hy function, a path, a string and a quoted symbol as agents; options as keywords.
(import harness [monitor]
        pathlib [Path]
        sys)

(setv seen [])

(defn Mirror [hist score]
  "Tit for tat, checking that the moves it sees are Hy moves."
  (when hist
    (setv theirs (get (get hist -1) 1))
    (.append seen (and (or (= theirs 'C) (= theirs 'D))
                       (in theirs ["C" "D"])
                       (in (hy.repr theirs) ["C" "D"]))))
  (if (and hist (= (get (get hist -1) 1) 'D)) '(D D D) [:C :C :C]))

(setv agents-dir (get sys.argv 1)
      result (monitor [.2 .1] #(5 9)
                      [Mirror (Path agents-dir "GarciaHoffman.hy") "defect" 'KimLopez]
                      :seed 2 :isolation "none" :jobs 1 :agents-dir agents-dir))
(print (hy.repr result))
(print (and seen (all seen)) (sum (gfor s result.result.standings (sum (.values s.faults)))))
