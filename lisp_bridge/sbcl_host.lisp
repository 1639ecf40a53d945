;;;; The SBCL agent host: serves one Common Lisp agent over the line protocol of
;;;; docs/DESIGN.md (the same protocol as the Python host, harness/isolation/host.py).
;;;;
;;;; sbcl <runtime options> --end-runtime-options --no-sysinit --no-userinit
;;;;      --disable-debugger --load <this file's fasl> --eval "(pdharness-host:main)"
;;;;      --end-toplevel-options FILE NAME
;;;;
;;;; The protocol moves to private descriptors before any agent code is read: the agent's
;;;; standard input is empty and everything it prints (to *standard-output*, the real
;;;; stdout, anywhere) lands on fd 2, which the monitor captures apart from the protocol.
;;;; Every reply line starts with the token from PDH_TOKEN. Requests are read by hand,
;;;; never with the Lisp reader.

(defpackage :pdharness-host
  (:use :common-lisp)
  (:export #:main))

(in-package :pdharness-host)

(defvar *token* "")
(defvar *requests* nil)
(defvar *replies* nil)
(defvar *agent-output* nil)
(defvar *monitor-fds* '() "The control channel's pipes: a game's child closes them first.")
(defvar *game-fds* '() "The game channel (requests, replies): a game's child serves it.")

;;; -- descriptors --------------------------------------------------------------------------

(defun c-dup (fd)
  (sb-alien:alien-funcall
   (sb-alien:extern-alien "dup" (function sb-alien:int sb-alien:int)) fd))

(defun c-dup2 (from to)
  (sb-alien:alien-funcall
   (sb-alien:extern-alien "dup2" (function sb-alien:int sb-alien:int sb-alien:int))
   from to))

;;; The token and the time limit leave the environment before agent code runs: the token is
;;; what marks a reply as the host's own, so an agent must not find it lying about.
(defun forget-environment-variable (name)
  (sb-alien:alien-funcall
   (sb-alien:extern-alien "unsetenv" (function sb-alien:int sb-alien:c-string)) name))

(defun take-protocol-streams ()
  "Requests and replies on private fds; fd 0 reads nothing, fd 1 goes where fd 2 goes."
  (let ((in (c-dup 0))
        (out (c-dup 1))
        (null (sb-unix:unix-open "/dev/null" sb-unix:o_rdonly 0)))
    (c-dup2 null 0)
    (c-dup2 2 1)
    (setf *monitor-fds* (list in out)
          *requests* (sb-sys:make-fd-stream in :input t :buffering :full
                                               :external-format :latin-1)
          *replies* (sb-sys:make-fd-stream out :output t :buffering :full
                                               :external-format :utf-8)
          *agent-output* (sb-sys:make-fd-stream 2 :output t :buffering :line
                                                  :external-format :utf-8))))

(defun reply (&rest parts)
  "One reply line, marked with the token: the zygote's on the control channel, a game's
child's on the game channel."
  (write-string *token* *replies*)
  (write-char #\Space *replies*)
  (loop for (part . more) on parts
        do (write-string part *replies*)
           (when more (write-char #\Space *replies*)))
  (terpri *replies*)
  (finish-output *replies*))

(defun one-line (text &optional (limit 500))
  (let ((flat (substitute-if #\Space (lambda (c) (member c '(#\Newline #\Return #\Tab)))
                             (string-trim '(#\Space #\Newline #\Tab #\Return) text))))
    (if (> (length flat) limit)
        (concatenate 'string (subseq flat 0 (- limit 3)) "...")
        flat)))

(defun describe-condition (condition &optional in-function)
  "`TYPE: message`, and `, in function NAME` when IN-FUNCTION (the agent's own function the
error came from, agent-function-on-stack) is known: where a student looks first."
  (one-line (format nil "~A: ~A~@[, in function ~A~]" (type-of condition)
                    (handler-case (princ-to-string condition)
                      (serious-condition () "(its message cannot be printed)"))
                    (and in-function
                         (handler-case (one-line (let ((*package* (find-package :keyword)))
                                                   (princ-to-string in-function))
                                                 120)
                           (serious-condition () nil))))))

(defparameter *not-agent-packages*
  (mapcar #'find-package '(:common-lisp :keyword :pdharness-host))
  "Packages whose functions are never the agent's (SB-* are told by name).")

(defun agent-symbol-p (thing)
  (and (symbolp thing) (not (keywordp thing))
       (let ((package (symbol-package thing)))
         (and package
              (not (member package *not-agent-packages*))
              (not (eql 0 (search "SB-" (package-name package))))
              ;; the REPL's monitor, and libraries a student's image may have loaded
              (not (member (package-name package) '("PDHARNESS-REPL" "ASDF/INTERFACE" "UIOP"
                                                    "ASDF" "UIOP/UTILITY")
                           :test #'string=))))))

(defun names-agent-code-p (name)
  "Whether a frame's function NAME (a symbol, or a list such as (FLET F :IN G) or
(LAMBDA (X) :IN G)) is the agent's code: a symbol of the agent's packages in it."
  (if (consp name)
      (loop for part in name thereis (names-agent-code-p part))
      (agent-symbol-p name)))

(defun agent-function-on-stack ()
  "The innermost function on the stack that the agent's code defined (its name), or nil:
called while an error is signalled, before the stack unwinds. A bounded walk."
  (handler-case
      (loop for frame = (sb-di:top-frame) then (sb-di:frame-down frame)
            for depth below 256
            while frame
            do (let ((name (sb-di:debug-fun-name (sb-di:frame-debug-fun frame))))
                 (when (names-agent-code-p name)
                   (return name))))
    (serious-condition () nil)))

(defmacro noting-erring-function ((place) &body body)
  "BODY, with PLACE set to the agent's function an error left from (before any outer
handler unwinds the stack): an error the agent handles itself never reaches here."
  `(handler-bind ((error (lambda (c)
                           (declare (ignore c))
                           (unless ,place (setf ,place (agent-function-on-stack))))))
     ,@body))

;;; -- where agent code runs ----------------------------------------------------------------

(defmacro as-agent (&body body)
  "Run BODY with every standard stream away from the protocol."
  `(let* ((*standard-output* *agent-output*)
          (*error-output* *agent-output*)
          (*trace-output* *agent-output*)
          (*debug-io* (make-two-way-stream (make-string-input-stream "") *agent-output*))
          (*query-io* *debug-io*)
          (*terminal-io* *debug-io*)
          (*standard-input* (make-string-input-stream "")))
     (unwind-protect (progn ,@body)
       (ignore-errors (finish-output *agent-output*)))))
