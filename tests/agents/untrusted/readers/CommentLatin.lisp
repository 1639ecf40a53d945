;;; Untrusted: Latin-1 bytes (café) in a comment. SBCL reads files as UTF-8 and passes
;;; over this byte in a comment, so the file plays: validate says ok, with a warning.
(defun CommentLatin (hist score)
  (declare (ignore hist score))
  (list 'C 'C 'C))
