;;;; A legal Common Lisp agent whose file (so agent) name is a spreadsheet formula: in a CSV
;;;; cell it would become a live link labelled "Grades". It loads and plays, so its name and
;;;; source reach every CSV pdharness writes; each must hold it as text, never a formula.
(defun |=HYPERLINK("http:evil.example","Grades")| (hist score)
  (declare (ignore hist score))
  '(c c c))
