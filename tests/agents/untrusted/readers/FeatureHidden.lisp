;;; Untrusted: SBCL has the feature :package-local-nicknames, so it loads the helper and
;;; the global below, which are not prefixed with the agent's name; a reader that does
;;; not know SBCL's features dropped them and said the file was fine.
#+package-local-nicknames
(defvar *moves* (list 'C 'C 'C))

#+package-local-nicknames
(defun helper () *moves*)

(defun FeatureHidden (hist score)
  (declare (ignore hist score))
  (helper))
