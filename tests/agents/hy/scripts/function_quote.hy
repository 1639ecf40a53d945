;; The original call word for word, after enabling CL's #' from the prelude.
(require lisp_bridge.cl :readers *)
(import harness [monitor])

(defn Mine [hist score] ['C 'C 'C])

(print (hy.repr (monitor '(.25 .1) '(10 50) '(#'titfortat #'random #'KhosmoodLevinson)
                         :seed 4)))
(print (hy.repr (#'Mine [] [0 0])))
