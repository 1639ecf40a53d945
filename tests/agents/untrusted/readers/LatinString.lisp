;;; Untrusted: a Latin-1 byte inside a string, which SBCL cannot decode as UTF-8: the
;;; file does not load in the tournament, and validate says so (a load error).
(defun LatinString (hist score)
  (declare (ignore hist score))
  (if (string= "café" "x") (list 'D 'D 'D) (list 'C 'C 'C)))
