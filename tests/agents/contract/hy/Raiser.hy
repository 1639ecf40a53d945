;; Contract agent: raises on every call.
(defn Raiser [hist score]
  (raise (ValueError "contract-raiser on purpose")))
