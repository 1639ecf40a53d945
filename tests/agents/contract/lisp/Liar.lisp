;;; Contract agent: answers that are not three moves of C/D, a different one each call.
(defun Liar (hist score)
  (declare (ignore score))
  (nth (mod (floor (length hist) 3) 5)
       '((C C) (C C X) 42 (C C C C) nil)))
