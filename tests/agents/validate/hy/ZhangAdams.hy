(defn ZhangAdams [hist score] ["C" "C" "C"])
